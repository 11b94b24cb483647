import { a } from './a';

  
export function one() {
  return a + 1;
}


export function two() {
  return 2;
}
