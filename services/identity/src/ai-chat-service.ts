import type { ServiceImpl } from "@connectrpc/connect";
import { AiChatService } from "@vestibule/proto/identity/v1/ai_chat_service";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { ServiceContext } from "@vestibule/shared/service";
import { aiChatStore } from "./store/ai-chat-store.ts";

/** Bounds that keep a thread from filling the disk: message size and messages per thread. */
export const AI_CHAT_MAX_MESSAGE_BYTES = 100_000;
export const AI_CHAT_MAX_MESSAGES = 1_000;
const THREAD_ID = /^[A-Za-z0-9_-]{1,100}$/;

function isForeignKeyViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === "23503";
}

/** The dashboard's AI-chat threads: storage only, per project (no model is called). */
export function createAiChatService(ctx: ServiceContext): ServiceImpl<typeof AiChatService> {
  const { pool } = ctx;

  function threadId(id: string): string {
    if (!THREAD_ID.test(id)) throw statusError(400, "The thread id must be 1 to 100 letters, digits, '-' or '_'.");
    return id;
  }

  return {
    async listAiChatMessages(req) {
      return { messagesJson: await aiChatStore.list(pool, req.projectId, threadId(req.threadId)) };
    },

    async appendAiChatMessage(req) {
      const id = threadId(req.threadId);
      if (Buffer.byteLength(req.messageJson) > AI_CHAT_MAX_MESSAGE_BYTES) {
        throw statusError(400, `A message may be at most ${AI_CHAT_MAX_MESSAGE_BYTES} bytes of JSON.`);
      }
      let message: unknown;
      try {
        message = JSON.parse(req.messageJson);
      } catch {
        throw statusError(400, "message must be a JSON value.");
      }
      try {
        const seq = await withTransaction(pool, (tx) => aiChatStore.append(tx, req.projectId, id, JSON.stringify(message), AI_CHAT_MAX_MESSAGES));
        if (seq === undefined) throw statusError(400, `A thread may hold at most ${AI_CHAT_MAX_MESSAGES} messages.`);
      } catch (err) {
        if (isForeignKeyViolation(err)) throw knownError("PROJECT_NOT_FOUND", { project_id: req.projectId });
        throw err;
      }
      return {};
    },
  };
}
