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
  readonly logo_dark_mode_url: string | null;
  readonly logo_full_dark_mode_url: string | null;
  readonly onboarding_status: string;
  readonly is_development_environment: boolean;
}

const COLUMNS =
  "id, display_name, description, logo_url, full_logo_url, is_production_mode, owner_team_id, config_override, " +
  "project_config_override, branch_config_override, branch_config_source, version, created_at, " +
  "logo_dark_mode_url, logo_full_dark_mode_url, onboarding_status, is_development_environment";

/** Columns that a write may leave out: the project and branch levels (empty), the branch source (unlinked), and the
 * current SDK's project shape (issue 13: no dark-mode logos, no onboarding status, not a development environment). */
type Defaulted =
  | "project_config_override"
  | "branch_config_override"
  | "branch_config_source"
  | "logo_dark_mode_url"
  | "logo_full_dark_mode_url"
  | "onboarding_status"
  | "is_development_environment";

/** A row to write. */
export type ProjectRowInput = Omit<ProjectRow, "version" | "created_at" | Defaulted> & Partial<Pick<ProjectRow, Defaulted>>;

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
    p.logo_dark_mode_url ?? null,
    p.logo_full_dark_mode_url ?? null,
    p.onboarding_status ?? "",
    p.is_development_environment ?? false,
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
         project_config_override, branch_config_override, branch_config_source,
         logo_dark_mode_url, logo_full_dark_mode_url, onboarding_status, is_development_environment)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (id) DO NOTHING
       RETURNING ${COLUMNS}`,
      values(p),
    );
    return rows[0];
  },

  /** Writes every field and bumps the version. */
  async update(db: Queryable, p: Omit<ProjectRow, "version" | "created_at">): Promise<ProjectRow> {
    const { rows } = await db.query<ProjectRow>(
      `UPDATE projects SET display_name = $2, description = $3, logo_url = $4, full_logo_url = $5, is_production_mode = $6,
         owner_team_id = $7, config_override = $8, project_config_override = $9, branch_config_override = $10,
         branch_config_source = $11, logo_dark_mode_url = $12, logo_full_dark_mode_url = $13, onboarding_status = $14,
         is_development_environment = $15, version = version + 1, updated_at = now()
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
