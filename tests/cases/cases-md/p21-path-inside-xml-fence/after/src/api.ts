export const TIMEOUT_MS = 10_000;
