global using NUnit.Framework;
