// EmbeddedCheck: runs an embedded server from the Garnet.Host package and talks to it with the Garnet.Client package.
// Checks: PING, SET/GET, INCR, a list, a TTL, SHUTDOWN raising ShutdownRequested, and that data written before Dispose
// (which checkpoints) is there in a new server on the same directory. Prints one line per check and the summary line
// "sample: N passed, N failed"; the exit code is 0 only when every check passed.
using Garnet;
using Garnet.client;
using Garnet.Options;

string dir = Path.Combine(Path.GetTempPath(), "garnet-sample-" + Environment.ProcessId);
int passed = 0, failed = 0;

void Check(string name, string expected, string actual)
{
    bool ok = expected == actual;
    if (ok) passed++; else failed++;
    Console.WriteLine($"{(ok ? "ok  " : "FAIL")} {name}{(ok ? "" : $": expected '{expected}', got '{actual}'")}");
}

try
{
    int port;
    using (var server = new GarnetServer(new GarnetServerOptions { Port = 0, Dir = dir }))
    {
        server.Start();
        port = server.Port;
        Console.WriteLine($"embedded server on 127.0.0.1:{port}, data in {dir}");
        using var client = new RespClient("127.0.0.1", port);
        Check("PING", "PONG", client.Execute("PING").Text ?? "");
        Check("SET", "OK", client.Execute("SET", "greeting", "hello").Text ?? "");
        Check("GET", "hello", client.Execute("GET", "greeting").Text ?? "");
        Check("INCR", "11", client.Execute("INCRBY", "counter", 11).ToString());
        client.Execute("RPUSH", "list", "a", "b", "c");
        Check("LRANGE", "[a, b, c]", client.Execute("LRANGE", "list", 0, -1).ToString());
        client.Execute("SET", "temp", "x", "EX", 100);
        long ttl = client.Execute("TTL", "temp").Integer;
        Check("TTL", "True", (ttl is > 0 and <= 100).ToString());
        Check("unknown command", "(error) ERR unknown command 'NOPE', with args beginning with: ",
            client.Execute("NOPE").ToString());
    }   // Dispose: graceful stop and a checkpoint in dir

    using (var server = new GarnetServer(new GarnetServerOptions { Port = 0, Dir = dir }))
    {
        var shutdown = new TaskCompletionSource();
        server.ShutdownRequested += () => shutdown.TrySetResult();
        server.Start();
        using (var client = new RespClient("127.0.0.1", server.Port))
        {
            Check("GET after restart", "hello", client.Execute("GET", "greeting").Text ?? "");
            Check("LRANGE after restart", "[a, b, c]", client.Execute("LRANGE", "list", 0, -1).ToString());
            Check("DBSIZE after restart", "4", client.Execute("DBSIZE").ToString());
            client.Send("SHUTDOWN", "NOSAVE");
        }
        Check("ShutdownRequested raised", "True", shutdown.Task.Wait(TimeSpan.FromSeconds(10)).ToString());
    }
}
catch (Exception e)
{
    failed++;
    Console.WriteLine($"FAIL {e.GetType().Name}: {e.Message}");
}
finally
{
    try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
}

Console.WriteLine($"sample: {passed} passed, {failed} failed");
return failed == 0 && passed > 0 ? 0 : 1;
