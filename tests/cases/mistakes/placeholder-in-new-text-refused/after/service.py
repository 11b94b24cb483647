class Service:
    def start(self):
        self.open()
        self.run()

    def stop(self):
        self.close()
