// Async boundary: shared modules (React, the SDK, the UI kit) are negotiated before the app starts.
void import("./bootstrap.tsx");
