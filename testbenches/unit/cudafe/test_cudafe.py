"""tessera-cudafe: each rewrite, line numbers kept, comments and literals left alone."""

import importlib.machinery
import importlib.util
import os
import unittest

_loader = importlib.machinery.SourceFileLoader('cudafe', os.environ['TESSERA_CUDAFE'])
_spec = importlib.util.spec_from_loader('cudafe', _loader)
cudafe = importlib.util.module_from_spec(_spec)
_loader.exec_module(cudafe)

LAUNCH = ' | ::tessera_cuda::launch_config('


def rewrite(text):
    return cudafe.rewrite(text, 'x.cu')


class Launches(unittest.TestCase):
    def test_simple_launch(self):
        self.assertEqual(rewrite('k<<<g, b>>>(x, y);'), 'k' + LAUNCH + 'g, b)(x, y);')

    def test_template_kernel_and_nested_shifts(self):
        out = rewrite('k<float, 16><<<dim3((n + 255) >> 8, 1), 256, 0, s>>>(p);')
        self.assertEqual(out, 'k<float, 16>' + LAUNCH + 'dim3((n + 255) >> 8, 1), 256, 0, s)(p);')

    def test_launch_over_lines_keeps_line_count(self):
        text = 'a;\nk<<<g,\n  b>>>(x,\n y);\nz;\n'
        out = rewrite(text)
        self.assertEqual(out.count('\n'), text.count('\n'))
        self.assertEqual(out.splitlines()[4], 'z;')

    def test_comments_and_literals_untouched(self):
        text = '// k<<<1,1>>>()\nconst char* s = "k<<<1,1>>>()"; /* <<< */ char c = \'<\';\n'
        self.assertEqual(rewrite(text), text)

    def test_digit_separator_is_not_a_character_literal(self):
        out = rewrite("int n = 1'000; k<<<1, 1>>>(n);")
        self.assertIn(LAUNCH, out)

    def test_unclosed_launch_is_an_error_with_its_line(self):
        with self.assertRaisesRegex(cudafe.RewriteError, r'x\.cu:2: a kernel launch <<< has no matching >>>'):
            rewrite('int a;\nk<<<1, 32(p);\n')

    def test_empty_configuration_is_an_error(self):
        with self.assertRaisesRegex(cudafe.RewriteError, 'needs a grid and a block'):
            rewrite('k<<<>>>(p);')


class SharedMemory(unittest.TestCase):
    def test_extern_shared_becomes_a_pointer_to_the_dynamic_area(self):
        self.assertEqual(rewrite('extern __shared__ float s[];'),
                         'float *const s = (float (*))(void*)__tessera_dynamic_shared;')

    def test_extern_shared_two_dimensional_and_aligned(self):
        self.assertEqual(rewrite('extern __shared__ __align__(16) float t[][32];'),
                         '__align__(16) float (*const t)[32] = (float (*)[32])(void*)__tessera_dynamic_shared;')

    def test_extern_shared_over_lines_keeps_line_count(self):
        text = 'extern __shared__ T\n   buf[];\nnext;'
        out = rewrite(text)
        self.assertEqual(out.count('\n'), 2)
        self.assertEqual(out.splitlines()[2], 'next;')

    def test_extern_shared_needs_an_unsized_array(self):
        with self.assertRaisesRegex(cudafe.RewriteError, 'array of unknown size'):
            rewrite('extern __shared__ float s[64];')

    def test_static_shared_gets_a_marked_name_and_a_reference(self):
        self.assertEqual(
            rewrite('__shared__ float ta[T][T], tb[T];'),
            '__shared__ float __tessera_shared_ta[T][T]; float (&ta)[T][T] = __tessera_shared_ta; '
            '__shared__ float __tessera_shared_tb[T]; float (&tb)[T] = __tessera_shared_tb;')

    def test_shared_scalar_with_alignment(self):
        self.assertEqual(rewrite('__shared__ __align__(8) int count;'),
                         '__shared__ __align__(8) int __tessera_shared_count; int &count = __tessera_shared_count;')

    def test_asm_sections_of_marked_variables_move_to_shared(self):
        asm = ('\t.section\t.bss._ZZ1kILi4EEvPfE19__tessera_shared_ta,"awG",@nobits,'
               '_ZZ1kILi4EEvPfE19__tessera_shared_ta,comdat\n'
               '\t.section\t.bss._ZZ1kILi4EEvPfE5plain,"awG",@nobits,_ZZ1kILi4EEvPfE5plain,comdat\n')
        out = cudafe.rewrite_asm(asm).splitlines()
        self.assertEqual(out[0], '\t.section\t.shared._ZZ1kILi4EEvPfE19__tessera_shared_ta,"awG",@nobits,'
                         '_ZZ1kILi4EEvPfE19__tessera_shared_ta,comdat')
        self.assertEqual(out[1], asm.splitlines()[1])


class PragmaUnroll(unittest.TestCase):
    def test_literal_count(self):
        self.assertEqual(rewrite('  #pragma unroll 4\nfor (;;);'), '  #pragma GCC unroll 4\nfor (;;);')

    def test_bare_and_expression_counts(self):
        self.assertEqual(rewrite('#pragma unroll\n'), '#pragma GCC unroll 32\n')
        self.assertEqual(rewrite('#pragma unroll (TILE)\n'), '#pragma GCC unroll 32\n')

    def test_other_pragmas_untouched(self):
        self.assertEqual(rewrite('#pragma once\n#pragma unrolled\n'), '#pragma once\n#pragma unrolled\n')


if __name__ == '__main__':
    unittest.main()
