class A
{
    int x = 2;
}
