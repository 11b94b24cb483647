x
  end
x
  end # inner
x
  end
