// The collection encoding limits under Redis's config names (and ziplist aliases): CONFIG GET/SET change what OBJECT
// ENCODING reports for later changes, and a redis.conf sets them at start. The limits are process-wide, so this runs
// alone and puts the defaults back.
using Garnet.Options;
using Garnet.server.Objects;

namespace Garnet.test;

[TestFixture, NonParallelizable]
public class EncodingConfigTests : ServerFixture
{
    [TearDown]
    public void Defaults()
    {
        EncodingLimits.HashMaxListpackEntries = 128;
        EncodingLimits.HashMaxListpackValue = 64;
        EncodingLimits.ListMaxListpackSize = -2;
    }

    [Test]
    public void ConfigGetSetAndAliases()
    {
        using var c = _server.Client();
        var got = c.Execute("CONFIG", "GET", "hash-max-*");
        var map = Enumerable.Range(0, got.Elements!.Length / 2).ToDictionary(i => got.Elements[2 * i].Text!, i => got.Elements[2 * i + 1].Text!);
        Assert.That(map["hash-max-listpack-entries"], Is.EqualTo("128"));
        Assert.That(map["hash-max-ziplist-entries"], Is.EqualTo("128"));
        Assert.That(map["hash-max-listpack-value"], Is.EqualTo("64"));
        Assert.That(c.Execute("CONFIG", "SET", "hash-max-ziplist-entries", "2").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("CONFIG", "GET", "hash-max-listpack-entries").Elements![1].Text, Is.EqualTo("2"), "the alias sets the same limit");
        c.Execute("HSET", "enc", "a", "1", "b", "2");
        Assert.That(c.Execute("OBJECT", "ENCODING", "enc").Text, Is.EqualTo("listpack"));
        c.Execute("HSET", "enc", "c", "3");
        Assert.That(c.Execute("OBJECT", "ENCODING", "enc").Text, Is.EqualTo("hashtable"));
        Assert.That(c.Execute("CONFIG", "SET", "hash-max-listpack-value", "1kb").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("CONFIG", "GET", "hash-max-listpack-value").Elements![1].Text, Is.EqualTo("1024"));
        Assert.That(c.Execute("CONFIG", "SET", "hash-max-listpack-entries", "-1").Text, Does.StartWith("ERR CONFIG SET failed (possibly related to argument 'hash-max-listpack-entries')"));
        Assert.That(c.Execute("CONFIG", "SET", "list-max-listpack-size", "-5").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("CONFIG", "GET", "list-max-ziplist-size").Elements![1].Text, Is.EqualTo("-5"));
    }

    [Test]
    public void RedisConfSetsThem()
    {
        var path = Path.GetTempFileName();
        File.WriteAllText(path, "hash-max-ziplist-entries 7\nzset-max-listpack-value 32\n");
        try
        {
            var o = OptionsParser.Parse(["--config", path], TextWriter.Null, out _, out var ignored)!;
            SettingsBuilder.Build(o);
            Assert.That(ignored, Is.Empty);
            Assert.That(EncodingLimits.HashMaxListpackEntries, Is.EqualTo(7));
            Assert.That(EncodingLimits.ZSetMaxListpackValue, Is.EqualTo(32));
            File.WriteAllText(path, "hash-max-listpack-entries lots\n");
            o = OptionsParser.Parse(["--config", path], TextWriter.Null, out _, out _)!;
            var ex = Assert.Throws<OptionsException>(() => SettingsBuilder.Build(o));
            Assert.That(ex!.Message, Does.StartWith("Invalid value for hash-max-listpack-entries: 'lots'"));
        }
        finally
        {
            File.Delete(path);
            EncodingLimits.ZSetMaxListpackValue = 64;
        }
    }
}
