export const BASE_URL = process.env.API_URL ?? 'http://localhost:3000';
