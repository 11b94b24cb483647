class App
{
    static void Main()
    {
        Run();
    }
}
