import os


def main():
	name = os.environ.get('USER', 'world')
	print(f'hello, {name}!')


if __name__ == '__main__':
	main()
