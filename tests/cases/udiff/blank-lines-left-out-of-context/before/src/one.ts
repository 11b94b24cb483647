import { a } from './a';

  
export function one() {
  return a;
}


export function two() {
  return 2;
}
