export function menu(items: string[]) {
  const visible = items.filter(Boolean);

  
  if (visible.length === 0) {
    return "<li>(empty)</li>";
  }

  return visible.map((item) => `<li>${item}</li>`).join("");
}
