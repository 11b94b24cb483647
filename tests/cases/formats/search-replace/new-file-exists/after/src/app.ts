const a = 1;
const b = 2;

export function sum(): number {
  return a + b;
}
