export function greet(name) {
  return 'Hi ' + name;
}

export const VERSION = '1.0';
