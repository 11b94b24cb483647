const pattern = /test\.value\[0\]/;
const label = `hello ${name}`;
