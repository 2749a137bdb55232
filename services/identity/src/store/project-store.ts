import type { Queryable } from "@vestibule/shared/db";
import type { ConfigOverride } from "../domain/config/index.ts";

/** A row of identity.projects. `config_override` may hold SecretBox ciphertexts at secret leaves. */
export interface ProjectRow {
  readonly id: string;
  readonly display_name: string;
  readonly description: string;
  readonly logo_url: string | null;
  readonly full_logo_url: string | null;
  readonly is_production_mode: boolean;
  readonly owner_team_id: string | null;
  /** The environment level's override document. */
  readonly config_override: ConfigOverride;
  readonly project_config_override: ConfigOverride;
  readonly branch_config_override: ConfigOverride;
  /** `/internal/config/source` of the branch level; null = unlinked. */
  readonly branch_config_source: Record<string, unknown> | null;
  readonly version: number;
  readonly created_at: Date;
}

const COLUMNS =
  "id, display_name, description, logo_url, full_logo_url, is_production_mode, owner_team_id, config_override, " +
  "project_config_override, branch_config_override, branch_config_source, version, created_at";

/** A row to write: the project and branch levels default to empty documents, the branch source to unlinked. */
export type ProjectRowInput = Omit<
  ProjectRow,
  "version" | "created_at" | "project_config_override" | "branch_config_override" | "branch_config_source"
> &
  Partial<Pick<ProjectRow, "project_config_override" | "branch_config_override" | "branch_config_source">>;

function values(p: ProjectRowInput): unknown[] {
  return [
    p.id,
    p.display_name,
    p.description,
    p.logo_url,
    p.full_logo_url,
    p.is_production_mode,
    p.owner_team_id,
    JSON.stringify(p.config_override),
    JSON.stringify(p.project_config_override ?? {}),
    JSON.stringify(p.branch_config_override ?? {}),
    p.branch_config_source == null ? null : JSON.stringify(p.branch_config_source),
  ];
}

/** The only SQL about projects. */
export const projectStore = {
  async get(db: Queryable, id: string, forUpdate = false): Promise<ProjectRow | undefined> {
    const { rows } = await db.query<ProjectRow>(`SELECT ${COLUMNS} FROM projects WHERE id = $1${forUpdate ? " FOR UPDATE" : ""}`, [id]);
    return rows[0];
  },

  async listByOwnerTeams(db: Queryable, teamIds: readonly string[]): Promise<ProjectRow[]> {
    if (teamIds.length === 0) return [];
    const { rows } = await db.query<ProjectRow>(
      `SELECT ${COLUMNS} FROM projects WHERE owner_team_id = ANY($1::uuid[]) ORDER BY created_at, id`,
      [teamIds],
    );
    return rows;
  },

  /** Inserts; returns undefined when the id is taken (ON CONFLICT DO NOTHING). */
  async insert(
    db: Queryable,
    p: ProjectRowInput,
  ): Promise<ProjectRow | undefined> {
    const { rows } = await db.query<ProjectRow>(
      `INSERT INTO projects (id, display_name, description, logo_url, full_logo_url, is_production_mode, owner_team_id, config_override,
         project_config_override, branch_config_override, branch_config_source)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (id) DO NOTHING
       RETURNING ${COLUMNS}`,
      values(p),
    );
    return rows[0];
  },

  async update(db: Queryable, p: Omit<ProjectRow, "version" | "created_at">): Promise<ProjectRow> {
    const { rows } = await db.query<ProjectRow>(
      `UPDATE projects SET display_name = $2, description = $3, logo_url = $4, full_logo_url = $5, is_production_mode = $6,
         owner_team_id = $7, config_override = $8, project_config_override = $9, branch_config_override = $10,
         branch_config_source = $11, version = version + 1, updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      values(p),
    );
    return rows[0]!;
  },

  async delete(db: Queryable, id: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM projects WHERE id = $1`, [id]);
    return rowCount === 1;
  },
};
