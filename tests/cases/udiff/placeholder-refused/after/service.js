function start() {
  open();
  run();
}
