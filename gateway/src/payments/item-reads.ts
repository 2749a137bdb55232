import type { Client } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetItemRequestSchema, GetItemResponse, ItemService } from "@vestibule/proto/billing/v1/item_service";
import { RpcBatcher, type RpcBatcherOptions } from "../auth/rpc-batcher.ts";

type ItemRequest = MessageInitShape<typeof GetItemRequestSchema>;
type Items = Pick<Client<typeof ItemService>, "getItems" | "getItem">;

/**
 * Item quantity reads (`GET /payments/items/...`, the SDK's getItem), batched into GetItems calls (see RpcBatcher):
 * on these machines one RPC costs several times the ledger read it carries, so under load a batch of reads pays one.
 * A billing service without GetItems gets single GetItem calls.
 */
export class ItemReads {
  private readonly batcher: RpcBatcher<ItemRequest, GetItemResponse>;

  constructor(items: Items, options: RpcBatcherOptions = {}) {
    this.batcher = new RpcBatcher<ItemRequest, GetItemResponse>(
      {
        service: "billing",
        name: "item-batch",
        sendBatch: async (requests) => (await items.getItems({ requests })).results.map((r) => r.outcome),
        sendOne: (request) => items.getItem(request),
      },
      options,
    );
  }

  get(request: ItemRequest): Promise<GetItemResponse> {
    return this.batcher.call(request);
  }
}
