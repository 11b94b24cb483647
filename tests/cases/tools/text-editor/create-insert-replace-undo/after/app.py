import os


def main():
	name = os.environ.get('USER', 'world')
	print('hello', name)


if __name__ == '__main__':
	main()
