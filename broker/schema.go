package broker

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema infers the JSON schema of a tool's input type with the SDK's
// own inference (jsonschema.For, which already closes every struct with
// additionalProperties false) and then applies the limits written in each
// field's `limit` tag, e.g.
//
//	Label string `json:"label,omitempty" limit:"maxLength=64,pattern=^[^\\x00-\\x1f\\x7f]*$"`
//
// Keys: minLength, maxLength, pattern, format, minimum, maximum, minItems,
// maxItems. A field whose type is a slice applies minItems/maxItems to the
// array and the rest to its items. It panics when the result would accept
// an unbounded value (see checkLimits), so a tool without limits cannot be
// registered.
func inputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("broker: input schema of %T: %v", *new(T), err))
	}
	applyLimits(reflect.TypeFor[T](), s)
	if err := checkLimits(s, "$"); err != nil {
		panic(fmt.Sprintf("broker: input schema of %T: %v", *new(T), err))
	}
	return s
}

// typeLimits are the limits of named types used in many tools, applied
// to a field of that type without a limit tag of its own.
var typeLimits = map[reflect.Type]string{
	reflect.TypeFor[SessionToken](): "maxLength=47,pattern=^dbs_[\\w-]{43}$",
}

func applyLimits(t reflect.Type, s *jsonschema.Schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		// A Go slice may be nil, so inference allows null; an argument
		// list is never null.
		if s.Type == "" && slices.Equal(s.Types, []string{"null", "array"}) {
			s.Type, s.Types = "array", nil
		}
		if s.Items != nil {
			applyLimits(t.Elem(), s.Items)
		}
		return
	case reflect.Struct:
	default:
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		ps := s.Properties[name]
		if ps == nil {
			continue
		}
		if tag, ok := f.Tag.Lookup("limit"); ok {
			setLimits(ps, f.Type, tag)
		} else if tag, ok := typeLimits[f.Type]; ok {
			setLimits(ps, f.Type, tag)
		}
		applyLimits(f.Type, ps)
	}
}

// setLimits applies one field's limit tag to its schema.
func setLimits(s *jsonschema.Schema, t reflect.Type, tag string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	isSlice := t.Kind() == reflect.Slice || t.Kind() == reflect.Array
	// pattern may contain commas; it must be the last key.
	var parts []string
	if i := strings.Index(tag, "pattern="); i >= 0 {
		parts = append(strings.Split(strings.TrimSuffix(tag[:i], ","), ","), tag[i:])
	} else {
		parts = strings.Split(tag, ",")
	}
	for _, kv := range parts {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		target := s
		if isSlice && k != "minItems" && k != "maxItems" {
			target = s.Items
		}
		switch k {
		case "minLength":
			target.MinLength = intPtr(v)
		case "maxLength":
			target.MaxLength = intPtr(v)
		case "pattern":
			target.Pattern = v
		case "format":
			target.Format = v
		case "minimum":
			target.Minimum = floatPtr(v)
		case "maximum":
			target.Maximum = floatPtr(v)
		case "minItems":
			target.MinItems = intPtr(v)
		case "maxItems":
			target.MaxItems = intPtr(v)
		default:
			panic("broker: unknown limit key " + k)
		}
	}
}

func intPtr(v string) *int {
	n, err := strconv.Atoi(v)
	if err != nil {
		panic("broker: bad limit value " + v)
	}
	return &n
}

func floatPtr(v string) *float64 {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		panic("broker: bad limit value " + v)
	}
	return &f
}

// checkLimits reports the first place where s accepts an unbounded value:
// an object not closed by additionalProperties false, a string without
// maxLength, a number without minimum and maximum, an array without
// maxItems. Tests run the same check on what tools/list returns.
func checkLimits(s *jsonschema.Schema, at string) error {
	types := s.Types
	if s.Type != "" {
		types = append(types, s.Type)
	}
	if len(types) == 0 {
		return fmt.Errorf("%s: no type", at)
	}
	for _, typ := range types {
		switch typ {
		case "object":
			ap := s.AdditionalProperties
			if ap == nil || ap.Not == nil {
				return fmt.Errorf("%s: additionalProperties is not false", at)
			}
			for name, p := range s.Properties {
				if err := checkLimits(p, at+"."+name); err != nil {
					return err
				}
			}
		case "string":
			if s.MaxLength == nil {
				return fmt.Errorf("%s: string without maxLength", at)
			}
		case "integer", "number":
			if s.Minimum == nil || s.Maximum == nil {
				return fmt.Errorf("%s: number without minimum and maximum", at)
			}
		case "array":
			if s.MaxItems == nil || s.Items == nil {
				return fmt.Errorf("%s: array without maxItems", at)
			}
			if err := checkLimits(s.Items, at+"[]"); err != nil {
				return err
			}
		case "boolean", "null":
		default:
			return fmt.Errorf("%s: unexpected type %s", at, typ)
		}
	}
	return nil
}

// argSchemas holds every registered tool's input schema by tool name, for
// naming the offending argument of an invalid call. Tools are registered
// at start-up and a tool name always has the same schema (it is inferred
// from the input type), so one process-wide table serves every broker.
var argSchemas sync.Map // tool name → *jsonschema.Schema

// Messages of invalid_input from the SDK's argument check. They name an
// argument only by its name in our own input schema, never by anything the
// caller sent: an unknown property is reported without its name.
const (
	msgArgsNotObject  = "the arguments must be a JSON object"
	msgArgUnknown     = "an argument that is not in the tool's input schema was given; see the tool's input schema"
	msgArgMissingPre  = "the required argument "
	msgArgMissingPost = " is missing"
	msgArgInvalidPre  = "the argument "
	msgArgInvalidPost = " does not match the tool's input schema (type, length, pattern or range)"
)

// invalidArgument is the invalid_input error for arguments the SDK
// refused: it names the first required argument that is missing or the
// first argument whose value fails its own schema, as a dotted path of our
// schema's property names (e.g. table.schema). Property names come from
// the schema, never from the input.
func invalidArgument(tool string, args json.RawMessage) *ToolError {
	v, ok := argSchemas.Load(tool)
	if !ok {
		return toolErr(CodeInvalidInput)
	}
	var m map[string]json.RawMessage
	if len(args) == 0 || string(args) == "null" {
		m = map[string]json.RawMessage{}
	} else if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return toolErrMsg(CodeInvalidInput, msgArgsNotObject)
	}
	return argumentError(v.(*jsonschema.Schema), m, "")
}

func argumentError(s *jsonschema.Schema, m map[string]json.RawMessage, prefix string) *ToolError {
	for _, name := range s.Required {
		if _, ok := m[name]; !ok {
			return toolErrMsg(CodeInvalidInput, msgArgMissingPre+prefix+name+msgArgMissingPost)
		}
	}
	for name := range m {
		if s.Properties[name] == nil {
			return toolErrMsg(CodeInvalidInput, msgArgUnknown)
		}
	}
	names := s.PropertyOrder
	if len(names) == 0 {
		for name := range s.Properties {
			names = append(names, name)
		}
		slices.Sort(names)
	}
	for _, name := range names {
		raw, ok := m[name]
		if !ok {
			continue
		}
		ps := s.Properties[name]
		var sub map[string]json.RawMessage
		if ps.Type == "object" && json.Unmarshal(raw, &sub) == nil && sub != nil {
			if te := argumentError(ps, sub, prefix+name+"."); te != nil {
				return te
			}
			continue
		}
		var val any
		if json.Unmarshal(raw, &val) != nil {
			return toolErrMsg(CodeInvalidInput, msgArgInvalidPre+prefix+name+msgArgInvalidPost)
		}
		rs, err := ps.Resolve(nil)
		if err != nil || rs.Validate(val) != nil {
			return toolErrMsg(CodeInvalidInput, msgArgInvalidPre+prefix+name+msgArgInvalidPost)
		}
	}
	return nil
}
