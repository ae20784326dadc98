package postgres

import (
	"bytes"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The round-trip proof of normalize compares two parse trees, source
// positions aside. Decoding both into Go structs and comparing them by
// reflection costs about as much as a parse, so the comparison runs on the
// parser's own protobuf encodings instead, in lockstep, guided by the
// message descriptors: position fields are skipped, nested messages are
// compared recursively (their positions differ too) and every other field
// must be byte-identical. Both encodings come from the same serializer,
// which writes fields in number order and omits default values, so equal
// trees give equal field sequences.

// parseResultDesc describes the root message of a parse.
var parseResultDesc = (&pg_query.ParseResult{}).ProtoReflect().Descriptor()

// fieldInfo says how to compare one field number of a message.
type fieldInfo struct {
	position bool                           // a source position: skipped
	msg      protoreflect.MessageDescriptor // set for message fields
}

// fieldInfos caches, per message full name, its fields by number.
var fieldInfos sync.Map // protoreflect.FullName → map[protowire.Number]fieldInfo

func fieldsOf(md protoreflect.MessageDescriptor) map[protowire.Number]fieldInfo {
	if m, ok := fieldInfos.Load(md.FullName()); ok {
		return m.(map[protowire.Number]fieldInfo)
	}
	fds := md.Fields()
	m := make(map[protowire.Number]fieldInfo, fds.Len())
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		fi := fieldInfo{position: isPosition(fd)}
		if fd.Kind() == protoreflect.MessageKind && !fd.IsMap() {
			fi.msg = fd.Message()
		}
		m[fd.Number()] = fi
	}
	fieldInfos.Store(md.FullName(), m)
	return m
}

// isPosition reports whether a field is a source position (location, or a
// RawStmt's statement offset and length), which differs between the input
// and the printed text without changing meaning.
func isPosition(fd protoreflect.FieldDescriptor) bool {
	switch fd.Name() {
	case "location", "stmt_location", "stmt_len":
		return fd.Kind() == protoreflect.Int32Kind
	}
	return false
}

// skipPositions drops the position fields at the start of b; nil for
// malformed input.
func skipPositions(b []byte, info map[protowire.Number]fieldInfo) []byte {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || !info[num].position {
			return b
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil
		}
		b = b[n+m:]
	}
	return b
}

// sameTree reports whether encodings a and b of message md hold the same
// tree, source positions aside. Malformed input is never the same.
func sameTree(a, b []byte, md protoreflect.MessageDescriptor) bool {
	info := fieldsOf(md)
	for {
		a, b = skipPositions(a, info), skipPositions(b, info)
		if a == nil || b == nil {
			return false
		}
		if len(a) == 0 || len(b) == 0 {
			return len(a) == len(b)
		}
		numA, typA, nA := protowire.ConsumeTag(a)
		numB, typB, nB := protowire.ConsumeTag(b)
		if nA < 0 || nB < 0 || numA != numB || typA != typB {
			return false
		}
		a, b = a[nA:], b[nB:]
		if fi := info[numA]; fi.msg != nil && typA == protowire.BytesType {
			va, ma := protowire.ConsumeBytes(a)
			vb, mb := protowire.ConsumeBytes(b)
			if ma < 0 || mb < 0 || !sameTree(va, vb, fi.msg) {
				return false
			}
			a, b = a[ma:], b[mb:]
			continue
		}
		ma := protowire.ConsumeFieldValue(numA, typA, a)
		mb := protowire.ConsumeFieldValue(numB, typB, b)
		if ma < 0 || mb < 0 || !bytes.Equal(a[:ma], b[:mb]) {
			return false
		}
		a, b = a[ma:], b[mb:]
	}
}
