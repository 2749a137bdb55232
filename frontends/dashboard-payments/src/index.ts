// Async boundary: shared modules are negotiated before the standalone harness starts.
void import("./bootstrap.tsx");
