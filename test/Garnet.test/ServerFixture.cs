using Garnet.Options;

namespace Garnet.test;

/// <summary>A fixture with one in-process server for all its tests.</summary>
public abstract class ServerFixture
{
    protected TestServer _server = null!;

    /// <summary>Options for this fixture's server (override to change them).</summary>
    protected virtual void Configure(GarnetServerOptions options) { }

    [OneTimeSetUp] public void StartServer() => _server = new TestServer(Configure);
    [OneTimeTearDown] public void StopServer() => _server.Dispose();
}
