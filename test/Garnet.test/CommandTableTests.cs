using System.Linq.Expressions;
using System.Reflection;
using System.Runtime.CompilerServices;
using Garnet.client;
using Garnet.server.Commands;

namespace Garnet.test;

[TestFixture]
public class CommandTableTests : ServerFixture
{

    [Test]
    public void EveryRowIsRunnable()
    {
        foreach (var c in CommandTable.Default.Commands)
        {
            Assert.That(c.Handler is not null || c.HasSubcommands, $"{c.Name} has no handler");
            foreach (var s in c.Subcommands)
            {
                Assert.That(s.Handler, Is.Not.Null, $"{s.FullName} has no handler");
                Assert.That(s.Arity, Is.Not.InRange(-1, 1), $"{s.FullName} arity must count the container and subcommand");
            }
            Assert.That(c.Acl & (AclCategories.Fast | AclCategories.Slow), Is.Not.EqualTo(AclCategories.None));
        }
    }

    [Test]
    public void CompletingADeclarationKeepsEveryField()
    {
        // The table completes each declaration into a new definition, field by field: one it forgot to copy would be lost
        // without a sound. Every field a declaration can set (init) is given a value and must come out the same.
        var props = typeof(CommandDefinition).GetProperties(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic)
            .Where(p => p.SetMethod?.ReturnParameter.GetRequiredCustomModifiers().Contains(typeof(IsExternalInit)) == true)
            .Where(p => p.Name is not ("Name" or "Arity" or "PlainRead")) // PlainRead is GET's only (checked by the table)
            .ToList();
        Assert.That(props.Select(p => p.Name), Does.Contain("Handler").And.Contain("KeysAfterKeyword").And.Contain("PlanStreamBlocks"));
        var declared = new CommandDefinition { Name = "x", Arity = -2 };
        var values = props.ToDictionary(p => p.Name, p => Sample(p));
        foreach (var p in props) p.SetValue(declared, values[p.Name]);
        var done = new CommandTable([declared]).Find("x")!;
        Assert.That(done, Is.Not.SameAs(declared));
        foreach (var p in props)
        {
            if (p.Name == "Acl") Assert.That(done.Acl & AclCategories.Hash, Is.EqualTo(AclCategories.Hash), "Acl (plus the derived ones)");
            else Assert.That(p.GetValue(done), Is.EqualTo(values[p.Name]), p.Name);
        }

        static object Sample(PropertyInfo p) => p.Name switch
        {
            "KeySpecs" => "RO ACCESS @1 R0,1,0",
            "Acl" => AclCategories.Hash,
            "Flags" => CommandFlags.ReadOnly,
            _ when p.PropertyType == typeof(bool) => true,
            _ when p.PropertyType == typeof(int) => 2,
            _ when p.PropertyType == typeof(string) => "sample",
            _ when p.PropertyType == typeof(string[]) => new[] { "nondeterministic_output" },
            _ when p.PropertyType == typeof(KeyRange) => new KeyRange(1, -1, 2),
            _ when p.PropertyType == typeof(KeywordKeySpec) => new KeywordKeySpec("STREAMS", 1, 2),
            _ when typeof(Delegate).IsAssignableFrom(Nullable.GetUnderlyingType(p.PropertyType) ?? p.PropertyType) => NoOp(p.PropertyType),
            _ => throw new NotSupportedException($"a sample value for {p.Name} ({p.PropertyType})"),
        };

        static Delegate NoOp(Type type)
        {
            var invoke = type.GetMethod("Invoke")!;
            var parameters = invoke.GetParameters().Select(q => Expression.Parameter(q.ParameterType)).ToArray();
            return Expression.Lambda(type, Expression.Default(invoke.ReturnType), parameters).Compile();
        }
    }

    [Test]
    public void CountInfoListAgree()
    {
        using var c = _server.Client();
        long count = c.Execute("COMMAND", "COUNT").Integer;
        Assert.That(count, Is.EqualTo(CommandTable.Default.Commands.Count));
        var all = c.Execute("COMMAND");
        Assert.That(all.Elements, Has.Length.EqualTo(count));
        var list = c.Execute("COMMAND", "LIST").Elements!.Select(e => e.Text).ToList();
        Assert.That(list, Does.Contain("ping").And.Contain("client|kill").And.Contain("config|get"));
        Assert.That(list, Has.Count.EqualTo(CommandTable.Default.Commands.Sum(x => 1 + x.Subcommands.Length)));
    }

    [Test]
    public void InfoShape()
    {
        using var c = _server.Client();
        var v = c.Execute("COMMAND", "INFO", "ping", "nosuch", "client|setname");
        Assert.That(v.Elements, Has.Length.EqualTo(3));
        var ping = v.Elements![0].Elements!;
        Assert.That(ping, Has.Length.EqualTo(10));
        Assert.That(ping[0].Text, Is.EqualTo("ping"));
        Assert.That(ping[1].Integer, Is.EqualTo(-1));
        Assert.That(ping[2].Elements!.Select(e => e.Text), Is.EquivalentTo(new[] { "fast" }), "sentinel is hidden, as in Redis");
        Assert.That(ping[6].Elements!.Select(e => e.Text), Is.EquivalentTo(new[] { "@fast", "@connection" }));
        Assert.That(v.Elements[1].IsNull);
        Assert.That(v.Elements[2].Elements![0].Text, Is.EqualTo("client|setname"));
        Assert.That(v.Elements[2].Elements![1].Integer, Is.EqualTo(3));

        var client = c.Execute("COMMAND", "INFO", "CLIENT").Elements![0].Elements!;
        var subs = client[9].Elements!.Select(e => e.Elements![0].Text).ToList();
        Assert.That(subs, Does.Contain("client|list").And.Contain("client|kill"));
        var list = client[9].Elements!.First(e => e.Elements![0].Text == "client|list").Elements!;
        Assert.That(list[6].Elements!.Select(e => e.Text), Is.SupersetOf(new[] { "@admin", "@slow", "@dangerous", "@connection" }));
    }

    [Test]
    public void Docs()
    {
        using var c = _server.Client();
        var m = RespAssert.Map(c.Execute("COMMAND", "DOCS", "echo", "nosuch", "config"));
        Assert.That(m.Keys, Is.EquivalentTo(new[] { "echo", "config" }));
        var echo = RespAssert.Map(m["echo"]);
        Assert.That(echo["summary"].Text, Is.EqualTo("Returns the given string."));
        Assert.That(echo["group"].Text, Is.EqualTo("connection"));
        var config = RespAssert.Map(m["config"]);
        Assert.That(RespAssert.Map(config["subcommands"]).Keys, Does.Contain("config|set"));
        Assert.That(RespAssert.Map(c.Execute("COMMAND", "DOCS")).Count, Is.EqualTo(CommandTable.Default.Commands.Count));
    }

    [Test]
    public void ListFilters()
    {
        using var c = _server.Client();
        var byPattern = c.Execute("COMMAND", "LIST", "FILTERBY", "PATTERN", "c*").Elements!.Select(e => e.Text).ToList();
        Assert.That(byPattern, Does.Contain("client").And.Contain("config").And.Contain("command").And.Not.Contain("ping"));
        var admin = c.Execute("COMMAND", "LIST", "FILTERBY", "ACLCAT", "admin").Elements!.Select(e => e.Text).ToList();
        Assert.That(admin, Does.Contain("shutdown").And.Contain("config|set").And.Not.Contain("ping"));
        Assert.That(c.Execute("COMMAND", "LIST", "FILTERBY", "MODULE", "x").Elements, Is.Empty);
        RespAssert.Error(c.Execute("COMMAND", "LIST", "FILTERBY", "COLOR", "x"), "ERR syntax error");
    }

    [Test]
    public void GetKeys()
    {
        using var c = _server.Client();
        RespAssert.Error(c.Execute("COMMAND", "GETKEYS", "nosuch", "k"), "ERR Invalid command specified");
        RespAssert.Error(c.Execute("COMMAND", "GETKEYS", "echo", "x"), "ERR The command has no key arguments");
        RespAssert.Error(c.Execute("COMMAND", "GETKEYS"), "ERR wrong number of arguments for 'command|getkeys' command");
    }

    [Test]
    public void KeyPositionsFromTheTable()
    {
        // The legacy first/last/step extraction that COMMAND GETKEYS and cluster routing use.
        static byte[][] Args(string line) => line.Split(' ').Select(System.Text.Encoding.UTF8.GetBytes).ToArray();
        var def = new CommandDefinition { Name = "mset", Arity = -3, Keys = new KeyRange(1, -1, 2) };
        var positions = new List<int>();
        def.GetKeyPositions(Args("MSET a 1 b 2 c 3"), positions);
        Assert.That(positions, Is.EqualTo(new[] { 1, 3, 5 }));
        positions.Clear();
        new CommandDefinition { Name = "get", Arity = 2, Keys = new KeyRange(1, 1, 1) }.GetKeyPositions(Args("GET a"), positions);
        Assert.That(positions, Is.EqualTo(new[] { 1 }));
        // Redis's keyword spec (XREAD): the first half of what follows STREAMS, the keyword matched in any case
        var xread = new CommandDefinition { Name = "xread", Arity = -4, KeysAfterKeyword = new("STREAMS", 1, 2) };
        foreach (var (line, expected) in new[] { ("XREAD COUNT 2 streams a b 0 0", new[] { 4, 5 }), ("XREAD STREAMS a b 0", [2]),
                     ("XREAD COUNT 1 a 0", []), ("XREAD a b STREAMS", []), ("XREAD STREAMS STREAMS a 0 0", [2, 3]) })
        {
            positions.Clear();
            xread.GetKeyPositions(Args(line), positions);
            Assert.That(positions, Is.EqualTo(expected), line);
        }
    }

    [Test]
    public void LookupIsCaseInsensitive()
    {
        Assert.That(CommandTable.Default.Find("PiNg")!.Name, Is.EqualTo("ping"));
        Assert.That(CommandTable.Default.Find("client")!.FindSubcommand("SetName"u8)!.FullName, Is.EqualTo("client|setname"));
        Assert.That(CommandTable.Default.Find("pingx"), Is.Null);
        Assert.That(CommandTable.Default.Find(""), Is.Null);
    }
    [Test]
    public void NameMatchesIsACaseInsensitiveCompareOfTheWholeName()
    {
        // Every command and subcommand name: in upper, lower and mixed case it matches; with any one byte changed to
        // anything but that byte's other case, with a byte more or less, it does not (the one-word compare of names of
        // up to 8 letters, and the general compare of the others).
        var all = CommandTable.Default.Commands.SelectMany(c => c.Subcommands.Prepend(c)).ToList();
        foreach (var c in all)
        {
            var upper = c.NameUpperBytes;
            var lower = upper.Select(b => (byte)char.ToLowerInvariant((char)b)).ToArray();
            var mixed = upper.Select((b, i) => i % 2 == 0 ? b : (byte)char.ToLowerInvariant((char)b)).ToArray();
            Assert.That(c.NameMatches(upper) && c.NameMatches(lower) && c.NameMatches(mixed), Is.True, c.FullName);
            Assert.That(c.NameMatches(upper.Append((byte)'X').ToArray()), Is.False, c.FullName + " and a byte more");
            Assert.That(c.NameMatches(upper.AsSpan(0, upper.Length - 1)), Is.False, c.FullName + " less a byte");
            for (int i = 0; i < upper.Length; i++)
                for (int b = 0; b < 256; b++)
                {
                    var changed = (byte[])upper.Clone();
                    changed[i] = (byte)b;
                    bool same = b == upper[i] || b == lower[i];
                    Assert.That(c.NameMatches(changed), Is.EqualTo(same), $"{c.FullName}, byte {i} = {b}");
                }
        }
    }
}
