import type { Queryable } from "@vestibule/shared/db";
import { ChainChecker, type ChainBreak } from "./domain/chain.ts";
import { auditStore, chainedRow } from "./store/audit-store.ts";

export interface VerifyReport {
  readonly projects: number;
  readonly entries: number;
  /** The first break of each broken project. */
  readonly breaks: ChainBreak[];
}

/** Walks every project's chain (in pages of `pageSize` rows), recomputing each hash and link. */
export async function verifyAuditChains(db: Queryable, pageSize = 1000): Promise<VerifyReport> {
  const heads = await auditStore.projects(db);
  const breaks: ChainBreak[] = [];
  let entries = 0;
  for (const head of heads) {
    const checker = new ChainChecker(head.project_id);
    let after = "0";
    let broken: ChainBreak | undefined;
    for (;;) {
      const rows = await auditStore.chainPage(db, head.project_id, after, pageSize);
      for (const row of rows) {
        entries++;
        broken = checker.next(chainedRow(row));
        if (broken) break;
      }
      if (broken || rows.length < pageSize) break;
      after = String(rows[rows.length - 1]!.seq);
    }
    broken ??= checker.end(head.seq === "-1" ? undefined : head);
    if (broken) breaks.push(broken);
  }
  return { projects: heads.length, entries, breaks };
}
