export function menu(items: string[]) {
  const visible = items.filter(Boolean);

  
  return visible.map((item) => `<li>${item}</li>`).join("");
}
