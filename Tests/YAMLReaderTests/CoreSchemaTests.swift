import Testing
import YAMLReader

/// The YAML 1.2 core schema applied to plain scalars; other styles are always strings.
@Suite(.timeLimit(.minutes(20))) struct CoreSchemaTests {
    @Test(arguments: [
        ("", YAMLCoreValue.null), ("~", .null), ("null", .null), ("Null", .null), ("NULL", .null),
        ("nULL", .string("nULL")),
        ("true", .bool(true)), ("True", .bool(true)), ("TRUE", .bool(true)),
        ("false", .bool(false)), ("False", .bool(false)), ("FALSE", .bool(false)),
        ("tRUE", .string("tRUE")), ("yes", .string("yes")), ("on", .string("on")),
        ("0", .int(0)), ("-12", .int(-12)), ("+12", .int(12)), ("007", .int(7)),
        ("0o17", .int(15)), ("0x1F", .int(31)), ("0xff", .int(255)),
        ("0o8", .string("0o8")), ("0x", .string("0x")), ("0b101", .string("0b101")), ("1_000", .string("1_000")),
        ("9223372036854775807", .int(Int64.max)), ("-9223372036854775808", .int(Int64.min)),
        ("9223372036854775808", .float(9223372036854775808.0)),
        ("1e3", .float(1000)), ("1E-2", .float(0.01)), (".5", .float(0.5)), ("-.5", .float(-0.5)),
        ("1.", .float(1)), ("+1.5e-3", .float(0.0015)), ("3.14", .float(3.14)),
        (".inf", .float(.infinity)), ("-.Inf", .float(-.infinity)), ("+.INF", .float(.infinity)),
        ("e3", .string("e3")), (".", .string(".")), ("1e", .string("1e")), ("1.2.3", .string("1.2.3")),
        ("12:30", .string("12:30")), ("0.278", .float(0.278)), ("- 1", .string("- 1")),
    ])
    func plainScalar(_ text: String, _ expected: YAMLCoreValue) {
        #expect(YAMLScalar(text: text, style: .plain).coreValue == expected)
    }

    @Test(arguments: [".nan", ".NaN", ".NAN"])
    func notANumber(_ text: String) throws {
        guard case .float(let value) = YAMLScalar(text: text, style: .plain).coreValue else {
            Issue.record("\(text) is not a float")
            return
        }
        #expect(value.isNaN)
    }

    @Test(arguments: [YAMLScalarStyle.singleQuoted, .doubleQuoted, .literal, .folded])
    func otherStylesAreStrings(_ style: YAMLScalarStyle) {
        for text in ["true", "1", "null", "", ".inf"] {
            #expect(YAMLScalar(text: text, style: style).coreValue == .string(text))
        }
    }

    @Test(arguments: [
        ("a: 1", "{\"a\":1}"),
        ("a: '1'", "{\"a\":\"1\"}"),
        ("a: \"true\"", "{\"a\":\"true\"}"),
        ("a: true", "{\"a\":true}"),
        ("a: |\n  1", "{\"a\":\"1\\n\"}"),
        ("a:", "{\"a\":null}"),
        ("a: ~", "{\"a\":null}"),
        ("a: 0x10", "{\"a\":16}"),
        ("a: -.inf", "{\"a\":-inf}"),
    ])
    func styleDecidesTheValue(_ input: String, _ json: String) throws {
        #expect(try YAMLReader.document(input).jsonText == json)
    }
}
