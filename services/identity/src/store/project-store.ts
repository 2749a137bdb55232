import type { Queryable } from "@vestibule/shared/db";
import type { ConfigOverride } from "../domain/config.ts";

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
  readonly logo_dark_mode_url: string | null;
  readonly logo_full_dark_mode_url: string | null;
  readonly onboarding_status: string;
  readonly is_development_environment: boolean;
}

/** Columns of the current SDK's project shape (issue 13), optional on insert. */
type ProjectExtras = Pick<ProjectRow, "logo_dark_mode_url" | "logo_full_dark_mode_url" | "onboarding_status" | "is_development_environment">;
type ProjectWrite = Omit<ProjectRow, "version" | "created_at" | keyof ProjectExtras> & Partial<ProjectExtras>;

const COLUMNS =
  "id, display_name, description, logo_url, full_logo_url, is_production_mode, owner_team_id, config_override, version, created_at, " +
  "logo_dark_mode_url, logo_full_dark_mode_url, onboarding_status, is_development_environment";

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
  async insert(db: Queryable, p: ProjectWrite): Promise<ProjectRow | undefined> {
    const { rows } = await db.query<ProjectRow>(
      `INSERT INTO projects (id, display_name, description, logo_url, full_logo_url, is_production_mode, owner_team_id, config_override,
         logo_dark_mode_url, logo_full_dark_mode_url, onboarding_status, is_development_environment)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        p.id, p.display_name, p.description, p.logo_url, p.full_logo_url, p.is_production_mode, p.owner_team_id, JSON.stringify(p.config_override),
        p.logo_dark_mode_url ?? null, p.logo_full_dark_mode_url ?? null, p.onboarding_status ?? "", p.is_development_environment ?? false,
      ],
    );
    return rows[0];
  },

  /** Writes every field and bumps the version. */
  async update(db: Queryable, p: Omit<ProjectRow, "version" | "created_at">): Promise<ProjectRow> {
    const { rows } = await db.query<ProjectRow>(
      `UPDATE projects SET display_name = $2, description = $3, logo_url = $4, full_logo_url = $5, is_production_mode = $6,
         owner_team_id = $7, config_override = $8, logo_dark_mode_url = $9,
         logo_full_dark_mode_url = $10, onboarding_status = $11, is_development_environment = $12, version = version + 1, updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        p.id, p.display_name, p.description, p.logo_url, p.full_logo_url, p.is_production_mode, p.owner_team_id, JSON.stringify(p.config_override),
        p.logo_dark_mode_url, p.logo_full_dark_mode_url, p.onboarding_status, p.is_development_environment,
      ],
    );
    return rows[0]!;
  },

  async delete(db: Queryable, id: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM projects WHERE id = $1`, [id]);
    return rowCount === 1;
  },
};
