export const client = true;
