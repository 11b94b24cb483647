class App
{
    static void Main()
    {
        Setup();
        Run();
    }
}
