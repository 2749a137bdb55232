// Async boundary: shared modules (React, the SDK, the UI kit) are negotiated before the dashboard starts.
void import("./bootstrap.tsx");
