// RequiredTools: the programs that tests run besides our own server: Debian's redis-server (replies, DUMP payloads and
// key specs compared side by side) and redis-cli (Debian's redis-tools). scripts/test.sh installs both when missing.
// Invariants: a test that needs a missing program FAILS, naming the program and the Debian package, so a machine without
// it cannot pass the suite by skipping what it could not check. The one way to skip instead is explicit:
// GARNET_TEST_ALLOW_MISSING_TOOLS=1 makes such a test Ignored (a machine without apt, say). Under CI (the environment
// variable CI set to anything but "", "false" or "0"; .ci/run sets CI=true, as most CI systems do) that opt-out is not
// honoured: a missing program always fails.

namespace Garnet.test.shared;

internal static class RequiredTools
{
    public const string OptOutVariable = "GARNET_TEST_ALLOW_MISSING_TOOLS";

    private static readonly string[] s_fallbackDirs = ["/usr/bin", "/usr/local/bin", "/usr/sbin", "/usr/local/sbin"];

    /// <summary>The path of Debian's redis-server; fails (or, with the opt-out, ignores) the test when it is missing.</summary>
    public static string RedisServer => Require("redis-server", "redis-server");

    /// <summary>The path of redis-cli; fails (or, with the opt-out, ignores) the test when it is missing.</summary>
    public static string RedisCli => Require("redis-cli", "redis-tools");

    /// <summary>True when a missing program skips the test instead of failing it (opt-out set, not under CI).</summary>
    public static bool MaySkip => MaySkipWith(Environment.GetEnvironmentVariable(OptOutVariable), Environment.GetEnvironmentVariable("CI"));

    /// <summary>The rule, given the opt-out variable's and CI's values.</summary>
    public static bool MaySkipWith(string? optOut, string? ci) => optOut == "1" && ci is null or "" or "false" or "0";

    /// <summary>The program's full path (PATH first, then the usual bin directories), or null.</summary>
    public static string? Find(string program)
    {
        var path = Environment.GetEnvironmentVariable("PATH") ?? "";
        foreach (var dir in path.Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries).Concat(s_fallbackDirs))
        {
            var candidate = Path.Combine(dir, program);
            if (File.Exists(candidate)) return candidate;
        }
        return null;
    }

    /// <summary>The program's full path; when it is missing, fails the test (Ignored only with the opt-out).</summary>
    public static string Require(string program, string debianPackage) =>
        Find(program) ?? throw Missing($"{program} is not installed (Debian package {debianPackage}; bash scripts/test.sh installs it)");

    /// <summary>Ends the test for a missing dependency, described by what: Assert.Fail, or Assert.Ignore with the opt-out.</summary>
    public static Exception Missing(string what)
    {
        if (MaySkip) Assert.Ignore($"{what}; skipped because {OptOutVariable}=1");
        Assert.Fail($"{what}. To skip the tests that need it instead, set {OptOutVariable}=1 (not honoured under CI).");
        return new InvalidOperationException(what); // not reached: Assert.Fail and Assert.Ignore throw
    }
}
