class Field:
    def render(self, html):
        if html.find('video') >= 0:
            self.add('player.swf')
        return html
