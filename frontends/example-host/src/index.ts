// Async boundary: shared modules are negotiated before the app starts.
void import("./bootstrap.tsx");
