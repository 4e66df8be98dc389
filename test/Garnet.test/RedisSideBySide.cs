// RedisSideBySide: a fixture with Debian's redis-server and our server running side by side, for tests that send both
// the same commands and compare the replies' bytes (RawResp). Fails when redis-server is missing (RequiredTools).
namespace Garnet.test;

public abstract class RedisSideBySide
{
    protected RedisProcess? _redis;
    protected TestServer? _ours;

    [OneTimeSetUp]
    public void StartBoth()
    {
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
