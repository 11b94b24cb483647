using System;

namespace App
{
    class Program { }
}
