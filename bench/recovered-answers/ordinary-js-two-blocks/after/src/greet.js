export function greet(name) {
  return `Hello, ${name}!`;
}

export const VERSION = '1.1';
