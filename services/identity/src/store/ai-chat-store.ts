import type { Queryable } from "@vestibule/shared/db";

/** The only SQL about AI-chat threads (identity.ai_chat_messages). */
export const aiChatStore = {
  /** Messages of a thread as JSON texts, oldest first. */
  async list(db: Queryable, projectId: string, threadId: string): Promise<string[]> {
    const { rows } = await db.query<{ message: string }>(
      `SELECT message::text AS message FROM ai_chat_messages WHERE project_id = $1 AND thread_id = $2 ORDER BY seq`,
      [projectId, threadId],
    );
    return rows.map((r) => r.message);
  },

  /**
   * Appends a message after the thread's last one; returns its position (1-based), or undefined when the thread
   * already holds `max` messages. Concurrent appends to one thread are serialised by a transaction-scoped advisory
   * lock (the caller runs this in a transaction).
   */
  async append(db: Queryable, projectId: string, threadId: string, messageJson: string, max: number): Promise<number | undefined> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`ai_chat:${projectId}:${threadId}`]);
    const { rows } = await db.query<{ n: number }>(
      `SELECT coalesce(max(seq), 0)::int AS n FROM ai_chat_messages WHERE project_id = $1 AND thread_id = $2`,
      [projectId, threadId],
    );
    const n = rows[0]!.n;
    if (n >= max) return undefined;
    await db.query(`INSERT INTO ai_chat_messages (project_id, thread_id, seq, message) VALUES ($1, $2, $3, $4::jsonb)`, [
      projectId,
      threadId,
      n + 1,
      messageJson,
    ]);
    return n + 1;
  },
};
