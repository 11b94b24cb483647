using System;
using System.IO;

namespace App
{
    class Program { }
}
