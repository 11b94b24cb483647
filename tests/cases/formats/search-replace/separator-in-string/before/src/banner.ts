export const rule = "=======";
export const title = "Report";
