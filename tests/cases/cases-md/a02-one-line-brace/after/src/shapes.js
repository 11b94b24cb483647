function area(r) {
  return Math.PI * r * r;
}

function perimeter(r) {
  return 2 * Math.PI * r;
}
