import os


def main():
	print('hello', os.environ.get('USER', 'world'))


if __name__ == '__main__':
	main()
