import { twice } from './util';

const a = twice(1);
const b = 2;

export function sum(): number {
  return a + b;
}
