// CommandLineReader: the command line -> GarnetServerOptions, with one-line errors.
// Invariants:
//  - The options are the [Option] properties of GarnetServerOptions (names case-insensitive), plus --help and --version.
//    A bool property is a switch (no value); every other option takes exactly one value: "--name value" or "--name=value".
//  - Every mistake is one OptionsException line saying what is wrong, never the help text:
//      Unknown option '--bogus' / Option '--dir' is given more than once / Option '--port' needs a value /
//      Unexpected argument 'x' / Invalid value for --port: 'abc'. Allowed: an integer from 0 to 65535.
//  - A value may start with a single '-' (e.g. --timeout -1, checked later by SettingsBuilder); a token starting with
//    "--" is always an option.
using System.Globalization;
using System.Reflection;
using CommandLine;

namespace Garnet.Options;

public static class CommandLineReader
{
    public enum Request { Run, Help, Version }

    private static readonly Dictionary<string, PropertyInfo> s_options = typeof(GarnetServerOptions).GetProperties()
        .Select(p => (p, a: p.GetCustomAttribute<OptionAttribute>()))
        .Where(x => x.a is not null)
        .ToDictionary(x => x.a!.LongName, x => x.p, StringComparer.OrdinalIgnoreCase);

    /// <summary>Reads args into options. Throws OptionsException (one line) for any mistake.</summary>
    public static GarnetServerOptions Read(string[] args, out Request request)
    {
        var options = new GarnetServerOptions();
        var seen = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        request = Request.Run;
        string? lastSwitch = null;
        for (int i = 0; i < args.Length; i++)
        {
            string arg = args[i];
            if (!arg.StartsWith("--") || arg.Length == 2)
            {
                if (arg.Length > 1 && arg[0] == '-') throw new OptionsException($"Unknown option '{arg}'.");
                string after = lastSwitch is null ? "" : $" (--{lastSwitch} is a switch and takes no value)";
                throw new OptionsException($"Unexpected argument '{arg}'{after}.");
            }
            lastSwitch = null;
            string name = arg[2..];
            string? value = null;
            int eq = name.IndexOf('=');
            if (eq >= 0) { value = name[(eq + 1)..]; name = name[..eq]; }
            if (name.Equals("help", StringComparison.OrdinalIgnoreCase)) { request = Request.Help; lastSwitch = "help"; continue; }
            if (name.Equals("version", StringComparison.OrdinalIgnoreCase))
            {
                if (request != Request.Help) request = Request.Version;
                lastSwitch = "version";
                continue;
            }
            if (!s_options.TryGetValue(name, out var property)) throw new OptionsException($"Unknown option '--{name}'.");
            name = name.ToLowerInvariant();
            if (!seen.Add(name)) throw new OptionsException($"Option '--{name}' is given more than once.");
            if (property.PropertyType == typeof(bool))
            {
                if (value is not null) throw new OptionsException($"Option '--{name}' is a switch and takes no value (got '{value}').");
                property.SetValue(options, true);
                lastSwitch = name;
                continue;
            }
            if (value is null)
            {
                if (i + 1 >= args.Length || args[i + 1].StartsWith("--")) throw new OptionsException($"Option '--{name}' needs a value.");
                value = args[++i];
            }
            if (property.PropertyType == typeof(int?))
            {
                if (!int.TryParse(value, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int n))
                    throw new OptionsException($"Invalid value for --{name}: '{value}'. Allowed: {SettingsBuilder.AllowedIntegers.GetValueOrDefault(name, "an integer")}.");
                property.SetValue(options, n);
            }
            else property.SetValue(options, value);
        }
        return options;
    }
}
