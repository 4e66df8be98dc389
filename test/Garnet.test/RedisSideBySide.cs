// RedisSideBySide: a fixture with Debian's redis-server and our server running side by side, for tests that send both
// the same commands and compare the replies' bytes (RawResp). Ignored (not passed) when redis-server is missing.
namespace Garnet.test;

public abstract class RedisSideBySide
{
    protected RedisProcess? _redis;
    protected TestServer? _ours;

    [OneTimeSetUp]
    public void StartBoth()
    {
        if (RedisProcess.Executable is null) Assert.Ignore("redis-server is not installed (apt-get install redis-server)");
        _redis = new RedisProcess();
        _ours = new TestServer();
    }

    [OneTimeTearDown]
    public void StopBoth()
    {
        _redis?.Dispose();
        _ours?.Dispose();
    }
}
