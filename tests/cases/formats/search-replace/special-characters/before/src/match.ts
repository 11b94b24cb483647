const pattern = /value/;
const label = 'plain';
