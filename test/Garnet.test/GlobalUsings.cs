global using NUnit.Framework;
global using Garnet.test.shared;
