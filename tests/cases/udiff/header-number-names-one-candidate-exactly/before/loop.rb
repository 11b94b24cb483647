x
  end
x
  end
x
  end
