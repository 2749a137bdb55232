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
  readonly config_override: ConfigOverride;
  readonly version: number;
  readonly created_at: Date;
}

const COLUMNS = "id, display_name, description, logo_url, full_logo_url, is_production_mode, owner_team_id, config_override, version, created_at";

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
    p: Omit<ProjectRow, "version" | "created_at">,
  ): Promise<ProjectRow | undefined> {
    const { rows } = await db.query<ProjectRow>(
      `INSERT INTO projects (id, display_name, description, logo_url, full_logo_url, is_production_mode, owner_team_id, config_override)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [p.id, p.display_name, p.description, p.logo_url, p.full_logo_url, p.is_production_mode, p.owner_team_id, JSON.stringify(p.config_override)],
    );
    return rows[0];
  },

  async update(db: Queryable, p: Omit<ProjectRow, "version" | "created_at">): Promise<ProjectRow> {
    const { rows } = await db.query<ProjectRow>(
      `UPDATE projects SET display_name = $2, description = $3, logo_url = $4, full_logo_url = $5, is_production_mode = $6,
         owner_team_id = $7, config_override = $8, version = version + 1, updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [p.id, p.display_name, p.description, p.logo_url, p.full_logo_url, p.is_production_mode, p.owner_team_id, JSON.stringify(p.config_override)],
    );
    return rows[0]!;
  },

  async delete(db: Queryable, id: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM projects WHERE id = $1`, [id]);
    return rowCount === 1;
  },
};
