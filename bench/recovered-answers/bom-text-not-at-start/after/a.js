// header
const a = 1;
