const b = 20;

export function sum(): number {
  return a + b;
}
