test('sum', () => {
  expect(sum(1, 2)).toBe(4);
});
