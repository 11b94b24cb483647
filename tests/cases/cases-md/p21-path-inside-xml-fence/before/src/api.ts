export const TIMEOUT_MS = 5000;
