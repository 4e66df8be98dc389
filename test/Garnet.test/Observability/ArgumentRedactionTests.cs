// Which arguments are secrets (Metrics/ArgumentRedaction), for every command Redis redacts, including the ones this server
// does not have yet (MIGRATE, ACL): a pure function of the arguments, as Redis's redactClientCommandArgument callers decide.
using System.Text;
using Garnet.server.Metrics;

namespace Garnet.test.Observability;

[TestFixture]
public class ArgumentRedactionTests
{
    private static string Shown(params string[] args)
    {
        var bytes = args.Select(Encoding.UTF8.GetBytes).ToArray();
        return string.Join(' ', args.Select((a, i) =>
            ArgumentRedaction.IsRedacted(args.Length, j => bytes[j], i) ? "(redacted)" : a));
    }

    [Test]
    public void RedactsWhatRedisRedacts()
    {
        Assert.That(Shown("AUTH", "pw"), Is.EqualTo("AUTH (redacted)"));
        Assert.That(Shown("auth", "user", "pw"), Is.EqualTo("auth (redacted) (redacted)"));
        Assert.That(Shown("HELLO", "3", "SETNAME", "auth", "AUTH", "u", "p"), Is.EqualTo("HELLO 3 SETNAME auth AUTH (redacted) (redacted)"));
        Assert.That(Shown("HELLO", "3", "AUTH", "u"), Is.EqualTo("HELLO 3 AUTH u"), "AUTH without its two arguments is a syntax error, nothing to hide");
        Assert.That(Shown("CONFIG", "SET", "requirepass", "pw", "maxclients", "5", "masterauth", "pw2", "masteruser", "u"),
            Is.EqualTo("CONFIG SET requirepass (redacted) maxclients 5 masterauth (redacted) masteruser (redacted)"));
        Assert.That(Shown("config", "set", "tls-key-file-pass", "pw"), Is.EqualTo("config set tls-key-file-pass (redacted)"));
        Assert.That(Shown("CONFIG", "GET", "requirepass"), Is.EqualTo("CONFIG GET requirepass"));
        Assert.That(Shown("MIGRATE", "h", "6379", "k", "0", "1000", "COPY", "AUTH", "pw"), Is.EqualTo("MIGRATE h 6379 k 0 1000 COPY AUTH (redacted)"));
        Assert.That(Shown("MIGRATE", "h", "6379", "", "0", "1000", "AUTH2", "u", "pw", "KEYS", "auth", "k2"),
            Is.EqualTo("MIGRATE h 6379  0 1000 AUTH2 (redacted) (redacted) KEYS auth k2"));
        Assert.That(Shown("ACL", "SETUSER", "alice", "on", ">pw"), Is.EqualTo("ACL SETUSER (redacted) (redacted) (redacted)"));
        Assert.That(Shown("ACL", "DELUSER", "alice", "bob"), Is.EqualTo("ACL DELUSER (redacted) (redacted)"));
        Assert.That(Shown("ACL", "GETUSER", "alice"), Is.EqualTo("ACL GETUSER (redacted)"));
        Assert.That(Shown("SET", "auth", "requirepass"), Is.EqualTo("SET auth requirepass"));
    }
}
