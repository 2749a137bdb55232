import type { DescService } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";

/**
 * A service implementation whose module is loaded at the service's first call, not at startup: for services built on
 * heavy libraries few deployments use (WebAuthn's pulls in ~22 MB of ASN.1 and X.509 code and takes ~0.4 s to load).
 * Every method must be unary. A failed load is not kept: the next call tries again.
 */
export function lazyService<S extends DescService>(service: S, load: () => Promise<ServiceImpl<S>>): ServiceImpl<S> {
  let loading: Promise<ServiceImpl<S>> | undefined;
  const impl = () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
  const methods: Record<string, (req: unknown, ctx: unknown) => Promise<unknown>> = {};
  for (const method of service.methods) {
    if (method.methodKind !== "unary") throw new Error(`lazyService: ${service.typeName}.${method.name} is not unary`);
    methods[method.localName] = async (req, ctx) => {
      const target = (await impl()) as unknown as Record<string, (req: unknown, ctx: unknown) => Promise<unknown>>;
      return target[method.localName]!(req, ctx);
    };
  }
  return methods as unknown as ServiceImpl<S>;
}
